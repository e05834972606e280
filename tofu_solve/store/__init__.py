"""The on-disk cache: packages, git mirrors, tag lists, registry answers and module metadata,
content-checked and published by atomic rename."""
