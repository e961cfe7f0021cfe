"""Settings objects are built with keywords: a positional value beyond the identifying fields is refused."""

from __future__ import annotations

from typing import Any

import pytest

from evolve.ga.evolution import GASettings
from evolve.ga.run import RunSettings
from mentor.labeller import MentorConfig
from mentor.samplers import SamplerOptions
from search import Limit
from search.games.game import Adjudication, TimeControl
from search.games.match import MatchSettings


@pytest.mark.parametrize(("cls", "positional", "keywords"), [
    (GASettings, (), {"population": 10}),
    (RunSettings, (), {"labels": "l.epd", "out": "o", "ga": GASettings()}),
    (TimeControl, (), {"base": 10.0}),
    (Adjudication, (), {"resign_moves": 0}),
    (Limit, (), {"depth": 3}),
    (SamplerOptions, (), {"min_plies": 4}),
    (MatchSettings, ("a", "b"), {"games": 2}),
    (MentorConfig, ("builtin",), {"depth": 2}),
])
def test_settings_take_keywords_only(cls: Any, positional: tuple, keywords: dict) -> None:
    built = cls(*positional, **keywords)
    assert all(getattr(built, k) == v for k, v in keywords.items())
    with pytest.raises(TypeError):
        cls(*positional, *keywords.values())
