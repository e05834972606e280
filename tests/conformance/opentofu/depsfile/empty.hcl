# An empty locks file is a bit of a degenerate case, but it is valid.
