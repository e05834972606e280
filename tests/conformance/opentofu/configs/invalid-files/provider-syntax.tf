provider "template" {
  version = 
}
