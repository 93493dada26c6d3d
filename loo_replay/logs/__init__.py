"""Reading hand logs: files to documents (``reader``), documents to engine input (``parse``)."""
