"""Dependency trees: the tree service and one resolution module per ecosystem family, licences over a tree, the graph container."""
