resource_policy "aws_ebs_volume" "encrypted" {
  enforce {
    condition     = attrs.encrypted == true
    error_message = "EBS volumes must be encrypted."
  }
}
