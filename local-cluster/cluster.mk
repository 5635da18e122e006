# Make targets for local-cluster; included by the top-level Makefile.
