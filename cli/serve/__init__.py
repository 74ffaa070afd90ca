"""The web app and REST API behind `ark serve`: FastAPI app, routes, state, jobs, page."""
