resource "test_instance" "foo" {
  foo = "bar"
}
