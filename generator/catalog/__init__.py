"""The message catalog that the harvest (generator/harvest/) writes to data/catalog: read (`reader`) and
queried (`query`). It knows nothing of records.
"""
