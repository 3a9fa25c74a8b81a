"""Reading a user's evidence: inputs, classification, rank attribution, and facts."""
