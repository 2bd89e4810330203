"""Administrator accounts, roles and grants, sign-in and sessions; annotators' invite links."""
