"""``tofu-solve lsp``: a Language Server Protocol server that shows, where people edit, what
the solver knows (issue #61).

:mod:`.analysis` reads and solves a root module with the CLI's own code (the loader, the
solver and its explanations, the held-back analysis, ``check``) from the editor's unsaved
text, and turns the result into findings, verified fixes, hovers and lenses, positioned by
file and line; :mod:`.server` is the protocol (pygls): documents, background solves with
progress, and the requests. It runs beside terraform-ls or tofu-ls, not instead of them.
"""
