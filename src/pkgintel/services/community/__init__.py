"""What users and agents send us: wrong-verdict reports and page views."""
