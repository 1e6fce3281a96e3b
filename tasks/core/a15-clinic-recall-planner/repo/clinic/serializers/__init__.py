"""clinic serializers."""
