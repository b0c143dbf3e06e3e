"""Thin API views: explicit output serializers; the logic lives in services and selectors."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from game.selectors import crew_catalogue


class CrewListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        slug = serializers.CharField()
        name = serializers.CharField()
        cost = serializers.IntegerField()
        power = serializers.IntegerField()
        text = serializers.CharField()
        set = serializers.CharField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request):
        return Response(self.OutputSerializer(crew_catalogue(), many=True).data)
