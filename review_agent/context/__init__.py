"""The context a model and the review page see: the change's hunks with their surrounding
lines and enclosing headers, redacted, within a byte budget (`staging`)."""
