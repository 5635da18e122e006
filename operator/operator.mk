# Make targets for operator; included by the top-level Makefile.
