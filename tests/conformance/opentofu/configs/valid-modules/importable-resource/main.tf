
resource "local_file" "foo" {}
