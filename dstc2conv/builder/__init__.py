"""The build: which calls go into which split, the conversion of each, and the output set with its manifest."""
