language {
  edition = tofu2024
}
