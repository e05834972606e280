"""The working directory (OpenTofu internal/initwd, modsdir): installation into
.terraform/modules with modules.json, the override bridge files, and the state why and graph
read."""
