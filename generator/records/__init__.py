"""The record format and its files: the pydantic models (`model`) and their JSON Schema (`schema`), reading
record files (`load`), the bilingual rule (`bilingual`), the numbers counted from reports (`evidence`), the
ids at an earlier revision (`history`), and `errdex new` (`new`, from `record_template.yaml`).
"""

from pathlib import Path

DATA_ROOT = Path("data/errors")  # the records' folder in a checkout (here: the CLI reads no YAML to learn it)
