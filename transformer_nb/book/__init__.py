"""The book's figures and pages: plots, diagrams, interactive charts, the beam tree, the
measurements only the book draws and the page that translates in a browser
(`browser`). Used by the notebooks; nothing else in the package imports it.

Beside the layers: it may import any of them, and none of them imports it.
"""
