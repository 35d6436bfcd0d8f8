"""Sphinx hooks of the book's pages (Jupyter Book 1 loads this through `local_extensions` in _config.yml).

* Each page's scripts are listed once: sphinx-thebe and sphinx-togglebutton add their inline configuration twice
  (once with no file name, once with an empty one), and the second `const THEBE_JS_URL = ...` throws "Identifier
  'THEBE_JS_URL' has already been declared" in every page's console.
"""


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


def setup(app):
    app.connect('html-page-context', unique_scripts, priority=999)  # after the handlers that add scripts
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
