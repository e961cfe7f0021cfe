"""Position features, the bit-string genome, the organism evaluator and the built-in evaluators.

Every evaluator here has ``evaluate(board) -> int``: centipawns from the side to move's view.
"""

from .expert import Expert
from .features import FEATURE_NAMES, FEATURE_VERSION, feature_matrix, features
from .genome import Gene, Genome, default_genome
from .material import Material
from .organism import Organism

__all__ = ["FEATURE_NAMES", "FEATURE_VERSION", "Expert", "Gene", "Genome", "Material", "Organism",
           "default_genome", "feature_matrix", "features"]
