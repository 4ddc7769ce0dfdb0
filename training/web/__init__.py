"""The web page and JSON API of ``python -m training.serve``: play against agents, watch records and agents.

Modules: :mod:`.views` (what a seat may see, as JSON), :mod:`.games` (live games, limits, policies that can be
seated), :mod:`.app` (the FastAPI app); ``static/`` holds the page (plain HTML, JS and CSS, no build step).
Needs the ``web`` extra: ``pip install -e ".[web]"``.
"""
