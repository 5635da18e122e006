# Make targets for sample-service; included by the top-level Makefile.
