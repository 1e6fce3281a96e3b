"""depot serializers."""
