language {
  # The edition argument expects a bare keyword, not a string.
  edition = "tofu2024" # ERROR: Invalid language edition
}
