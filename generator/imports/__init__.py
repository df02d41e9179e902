"""`errdex import`: records of other knowledge bases -> errdex records (`importer`), from their shapes
(`shapes`), merged into ours (`merge`), with what these stages share (`base`).
"""
