from django.shortcuts import render

from game.selectors import crew_catalogue


def home(request):
    return render(request, "home.html", {"crew": crew_catalogue()})
