"""The web pages, one module per page or group of pages; each renders answers from `web/answers.py`."""
