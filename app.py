"""Chunk Inspector, the app, from a checkout: ``streamlit run app.py [-- --corpus PATH --allow-root PATH ...]``.

The router and the pages live in ``app_pages/`` (``app_pages/router.py``); an installed package
runs ``app_pages/main.py`` through ``chunk-inspector app``.
"""

# Streamlit runs this file as ``__main__``; a worker process spawned while a page runs imports
# the parent's main script as ``__mp_main__``, and must not run the whole app (its corpus
# loaded, its first look measured) once more, nor import the pages it never draws.
if __name__ == "__main__":
    from app_pages.router import main

    main()
