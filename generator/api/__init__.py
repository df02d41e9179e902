"""The static JSON API under /api/: its files (`export`), their OpenAPI description (`openapi`), and the
catalog's match index and shards that the paste page reads (`catalogmatch`).
"""
