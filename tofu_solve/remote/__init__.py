"""Remote access (OpenTofu internal/getmodules, registry): the registry protocols, git,
go-getter downloads, OCI, archives, provider installation sources, size and time limits, and
the single-flight helper."""
