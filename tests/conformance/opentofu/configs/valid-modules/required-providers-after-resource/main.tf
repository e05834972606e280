resource test_instance "my-instance" {
  provider = test
}