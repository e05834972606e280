"""Addresses as values (OpenTofu internal/addrs): module source addresses and their
normalization, provider source addresses, identifier names, and the one redaction rule for
secrets in addresses."""
