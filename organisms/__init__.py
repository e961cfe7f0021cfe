"""Position features, the bit-string genome, the organism evaluator and the built-in evaluators.

Every evaluator here has ``evaluate(board) -> int``: centipawns from the side to move's view.
"""

from .expert import Expert
from .features import FEATURE_NAMES, FEATURE_VERSION, feature_matrix, features
from .genome import Gene, Genome, default_genome
from .giraffe import GIRAFFE_FEATURE_NAMES, GIRAFFE_FEATURE_VERSION, giraffe_features, giraffe_matrix
from .material import Material
from .organism import Organism

__all__ = ["FEATURE_NAMES", "FEATURE_VERSION", "GIRAFFE_FEATURE_NAMES", "GIRAFFE_FEATURE_VERSION", "Expert",
           "Gene", "Genome", "Material", "Organism", "default_genome", "feature_matrix", "features",
           "giraffe_features", "giraffe_matrix"]
