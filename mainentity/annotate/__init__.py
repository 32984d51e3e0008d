"""Label a site dump in the browser: ``mainentity annotate`` turns a site dump into training data.

:mod:`~mainentity.annotate.manifest` reads and writes one page's labels in the dump's
``manifest.jsonl`` (locked, versioned, atomic); :mod:`~mainentity.annotate.session` holds the pages,
their renderings, screenshots and the model's answers; :mod:`~mainentity.annotate.app` serves them as a
local web app (Starlette and uvicorn, ``pip install 'mainentity[annotate]'``) with the page in
``static/``. Nothing here is imported by the package's ``__init__``.
"""
