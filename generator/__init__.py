"""errdex: a checked, bilingual knowledge base of LLM inference and serving errors."""

__version__ = "0.1.0"
