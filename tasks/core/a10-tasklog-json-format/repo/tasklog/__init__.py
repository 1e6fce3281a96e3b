"""A to-do list kept in a text file."""
