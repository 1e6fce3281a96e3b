"""The bfcl-eval package (the `accuracy` extra), the one place it is imported: its data
files, its conversion of BFCL functions into OpenAI `tools`, and its AST checker.

bfcl-eval pins an old dependency set (numpy 1.26.4 among them) and pulls in torch, so it is
never a core dependency and is imported only when an accuracy run needs it; without it every
entry point here ends in one UserError naming the extra.
"""

from __future__ import annotations

import copy
import importlib
import importlib.metadata
import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError
from .rules import BFCL_EVAL_VERSION, CHECKER_MODEL_NAME, EXTRA_INSTALL, SUBSET_LANGUAGE


def _import(module: str) -> Any:
    """A bfcl-eval module, or the one-line error saying how to install it."""
    if importlib.util.find_spec("bfcl_eval") is None:
        raise UserError(f"the accuracy phase needs bfcl-eval=={BFCL_EVAL_VERSION}, which is "
                        f"not installed: {EXTRA_INSTALL}")
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # installed without a dependency its imports need
        raise UserError(f"bfcl-eval is installed but cannot be imported ({exc}); "
                        f"reinstall with {EXTRA_INSTALL}") from exc


def bfcl_version() -> str | None:
    """The installed bfcl-eval version (None: not installed)."""
    try:
        return importlib.metadata.version("bfcl-eval")
    except importlib.metadata.PackageNotFoundError:
        return None


def data_dir() -> Path:
    """The BFCL v4 data files bfcl-eval ships (BFCL_v4_<subset>.json, possible_answer/)."""
    package = _import("bfcl_eval")
    return Path(package.__file__).parent / "data"


def openai_tools(functions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """BFCL function docs as OpenAI `tools`, converted by bfcl-eval itself (its OpenAPI type
    mapping, `.` in names replaced by `_`), as MLPerf's dataset builder does."""
    utils = _import("bfcl_eval.model_handler.utils")
    enums = _import("bfcl_eval.constants.enums")
    mappings = _import("bfcl_eval.constants.type_mappings")
    return utils.convert_to_tool([dict(f) for f in functions], mappings.GORILLA_TO_OPENAPI,
                                 enums.ModelStyle.OPENAI_COMPLETIONS)


@dataclass(frozen=True)
class CheckResult:
    """bfcl-eval's verdict on one sample's calls."""

    valid: bool
    error: tuple[str, ...] = ()
    error_type: str | None = None


class AstChecker:
    """bfcl-eval's `ast_checker`, called as MLPerf's scorer calls it: the record's function
    docs, the model's calls as [{name: arguments}], the possible answers, the subset's
    language and test category, and an OpenAI -FC model name."""

    def __init__(self) -> None:
        module = _import("bfcl_eval.eval_checker.ast_eval.ast_checker")
        self._check = module.ast_checker
        self._language = _import("bfcl_eval.constants.enums").Language
        self.version = bfcl_version()

    def __call__(self, functions: Sequence[Mapping[str, Any]],
                 calls: Sequence[Mapping[str, Any]], ground_truth: Sequence[Mapping[str, Any]],
                 subset: str) -> CheckResult:
        # copies: the checker may rewrite what it is given, and a record is scored again
        # on --rescore
        result = self._check(
            func_description=copy.deepcopy(list(functions)),
            model_output=copy.deepcopy(list(calls)),
            possible_answer=copy.deepcopy(list(ground_truth)),
            language=self._language[SUBSET_LANGUAGE.get(subset, "PYTHON")],
            test_category=subset,
            model_name=CHECKER_MODEL_NAME,
        )
        error = result.get("error") or ()
        return CheckResult(bool(result["valid"]),
                           tuple(str(e) for e in (error if isinstance(error, list) else [error])),
                           result.get("error_type"))
