module_policy "*" "version_and_source_check" {
  enforcement_level = "mandatory"
  filter = meta.version != null

  locals {
    min_version = "1.0.0"
  }

  enforce {
    condition = core::semverconstraint(meta.version, ">= ${local.min_version}")
    error_message = "Module version must be at least ${local.min_version}."
  }
}
