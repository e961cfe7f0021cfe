"""Position features, the bit-string genome, the organism evaluator and the built-in evaluators.

Every evaluator here has ``evaluate(board) -> int``: centipawns from the side to move's view.
"""

from organisms.expert import Expert
from organisms.features import FEATURE_NAMES, FEATURE_VERSION, feature_matrix, features
from organisms.genome import Gene, Genome, default_genome
from organisms.giraffe import GIRAFFE_FEATURE_NAMES, GIRAFFE_FEATURE_VERSION, giraffe_features, giraffe_matrix
from organisms.material import Material
from organisms.organism import Organism

__all__ = ["FEATURE_NAMES", "FEATURE_VERSION", "GIRAFFE_FEATURE_NAMES", "GIRAFFE_FEATURE_VERSION", "Expert",
           "Gene", "Genome", "Material", "Organism", "default_genome", "feature_matrix", "features",
           "giraffe_features", "giraffe_matrix"]
