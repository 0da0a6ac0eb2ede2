"""The app's main script under ``chunk-inspector app``: Streamlit runs it on every page's run, and
it runs the router (``app_pages/router.py``).

Streamlit runs it as ``__main__``; a worker process spawned while a page runs imports the
parent's main script as ``__mp_main__``, and must neither run the app again (its corpus loaded,
its first look measured) nor import the pages it never draws.
"""

if __name__ == "__main__":
    from app_pages.router import main

    main()
