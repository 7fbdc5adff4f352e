"""`companion venue`'s page: every board of the event live, the standings, one board large on a
tap, each game's GCG, and the whole event as one download (every GCG and a results CSV).

Flask like the table's page (served by waitress in :mod:`companion.commands.venue`). The page
polls ``/venue.json`` each second: a wall screen, not a phone, and one document for all the
tables is cheaper to serve than thirty streams.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, abort, jsonify, render_template

from companion.venue.screen import gcg_name


def create_venue_app(sub: Any) -> Flask:
    """The page over a :class:`companion.venue.subscriber.Subscriber` (its ``document()`` and,
    under its ``lock``, its ``screen``)."""
    app = Flask(__name__)

    @app.get("/")
    def page() -> Any:
        return render_template("venue.html", event=sub.screen.event)

    @app.get("/venue.json")
    def document() -> Any:
        resp = jsonify(sub.document())
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.get("/table/<int:n>/<gid>.json")
    def game(n: int, gid: str) -> Any:
        with sub.lock:
            detail = sub.screen.game_detail(n, gid)
        if detail is None:
            abort(404)
        return jsonify(detail)

    @app.get("/table/<int:n>/<gid>.gcg")
    def gcg(n: int, gid: str) -> Any:
        with sub.lock:
            t = sub.screen.tables.get(n)
            g = t.games.get(gid) if t else None
            if g is None or not g.state:
                abort(404)
            text, name = g.state.get("gcg") or "", gcg_name(g)
        return Response(text, mimetype="text/plain; charset=utf-8",
                        headers={"Content-Disposition": f'inline; filename="{name}"'})

    @app.get("/export.zip")
    def export() -> Any:
        with sub.lock:
            data = sub.screen.export_zip()
        return Response(data, mimetype="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{sub.screen.event}.zip"'})

    return app
