"""The case language: grammar, parser, typed model, validation, formatter and compiler."""
