"""Training the learned nets with torch (the optional extra ``nets``): the Giraffe-style evaluation net and its TD-
Leaf self-play, the DeepChess comparator, the move-probability net. torch is imported only in this package.
"""
