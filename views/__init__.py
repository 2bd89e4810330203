"""The pages and what they draw (Streamlit only here and in app.py; views never hold SQL or
formulas).

``pages/`` holds exactly the page scripts app.py routes (each URL is its file name; app.py's
gate decides who may open which). The parts they draw with: ``dashboard/``, ``annotate/``,
``spans/`` (annotate may use spans) and ``admin/``; ``common``, ``keys`` and
``compare_screen`` serve several rooms.
"""
