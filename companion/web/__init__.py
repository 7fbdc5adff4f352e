"""The live page: the game at the table on the players' phones (Flask, served by waitress).

``session.py`` the game behind a small protocol, ``snapshot.py`` the one JSON document,
``hub.py`` the game thread and the publisher, ``auth.py`` the organiser's PIN, sessions, CSRF
and rate limit, ``app.py`` the Flask factory, ``server.py`` waitress.
"""
