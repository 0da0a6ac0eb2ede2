"""Chunk Inspector, the app, from a checkout: ``streamlit run app.py [-- --corpus PATH --allow-root PATH ...]``.

The router and the pages live in ``app_pages/`` (``app_pages/main.py``), which an installed
package runs itself through ``chunk-inspector app``.
"""

from app_pages.main import main

main()
