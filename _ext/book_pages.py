"""Sphinx hooks of the book's pages (Jupyter Book 1 loads this through `local_extensions` in _config.yml).

* Each page's scripts are listed once: sphinx-thebe and sphinx-togglebutton add their inline configuration twice
  (once with no file name, once with an empty one), and the second `const THEBE_JS_URL = ...` throws "Identifier
  'THEBE_JS_URL' has already been declared" in every page's console.
* Each written page is made accessible where the theme and the extensions' markup is not (`ACCESSIBLE`, checked by
  axe-core in tests/test_book_a11y.py): a control's accessible name contains its visible text (WCAG 2.5.3, axe's
  `label-content-name-mismatch`), the bibliography's list holds list items (`aria-required-children`), and the
  sidebar is a landmark (`region`).
"""
import re
from pathlib import Path

# (what, pattern, replacement) applied to every HTML page the build writes; each leaves a fixed page unchanged.
ACCESSIBLE = [
    # the sidebar's search field shows "Search Ctrl+K" but was named "Search": named by its text instead (the
    # header's search button, an icon alone, keeps its aria-label)
    ('search field named by its text',
     re.compile(r'(<button class="btn search-button-field[^"]*"[^>]*?) aria-label="[^"]*"'), r'\1'),
    # the colour-mode button is named "Color mode" but its icons' titles made "Light" its visible text: the icons
    # are decoration
    ('colour-mode icons hidden from assistive technology',
     re.compile(r'(<i class="theme-switch [^"]*" data-mode="\w+")\s+title="[^"]*"'), r'\1 aria-hidden="true"'),
    # a hidden cell's toggle was named "Toggle hidden content" whatever it shows ("Show code cell source",
    # "Solution to exercise 1"): named by the prompt it shows instead
    ('hidden cell toggles named by their prompt',
     re.compile(r'<summary aria-label="Toggle hidden content">'), '<summary>'),
    # the sidebar (the book's title, the search field, the table of contents) was in no landmark, so a screen
    # reader's list of regions skipped the title link (axe: region): it is the book's navigation
    ('sidebar as a navigation landmark',
     re.compile(r'<div id="pst-primary-sidebar" class="bd-sidebar-primary bd-sidebar">'),
     '<div id="pst-primary-sidebar" class="bd-sidebar-primary bd-sidebar" role="navigation" aria-label="Book">'),
    # docutils gives each citation of a `role="list"` the deprecated `doc-biblioentry` role, which is no list item
    ('bibliography entries are list items',
     re.compile(r'(<div class="citation" id="[^"]*") role="doc-biblioentry"'), r'\1 role="listitem"'),
]


def accessible(html: str) -> str:
    "The page with every fix of `ACCESSIBLE` applied."
    for _, pattern, replacement in ACCESSIBLE:
        html = pattern.sub(replacement, html)
    return html


def unique_scripts(app, pagename, templatename, context, doctree):
    "Drop a script that repeats an earlier one: the same file, or the same inline body."
    seen, kept = set(), []
    for script in context.get('script_files', []):
        # an inline script's file name is None or '' depending on who added it
        key = (getattr(script, 'filename', script) or '', getattr(script, 'attributes', {}).get('body'))
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context['script_files'][:] = kept


def accessible_pages(app, exception):
    "Rewrite the HTML pages of the finished build with `accessible` (the theme's templates are not ours to edit)."
    if exception is not None or app.builder.format != 'html':
        return
    for page in Path(app.outdir).rglob('*.html'):
        html = page.read_text(encoding='utf-8')
        fixed = accessible(html)
        if fixed != html:
            page.write_text(fixed, encoding='utf-8')


def setup(app):
    app.connect('html-page-context', unique_scripts, priority=999)  # after the handlers that add scripts
    app.connect('build-finished', accessible_pages)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
