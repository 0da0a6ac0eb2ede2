"""The app's pages and router (``main.py``), shipped beside ``inspector``; Streamlit runs each page file
as a script, so the package itself holds nothing to import."""
