input "min_module_version" {
  type    = string
  default = "2.0.0"
}

module_policy "*" "min_module_version" {
  filter = meta.version != null
  enforce {
    condition     = core::semverconstraint(meta.version, ">= ${input.min_module_version}")
    error_message = "Module version must be at least ${input.min_module_version}."
  }
}
