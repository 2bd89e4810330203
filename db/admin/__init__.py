"""The installation's administration: app settings, background jobs, administrator accounts."""
