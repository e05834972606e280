data "test_resource" "t" {
  provider = my_test
}
