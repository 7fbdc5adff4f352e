"""The live page: the game at the table on the players' phones (Flask, served by waitress). It
presents sessions and never defines them (they are companion.table's, each game's page view its
registry entry's).

``hub.py`` the game thread and the publisher of the game's document, ``auth.py`` the organiser's
PIN, sessions, CSRF and rate limit, ``app.py`` the Flask factory, ``server.py`` waitress.
"""
