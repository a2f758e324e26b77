"""The use cases, one module per command: each returns results (never prints); ``envguard.cli`` renders them."""
