<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.11.0" name="kenney-sketch-desert" tilewidth="256" tileheight="352" tilecount="5" columns="0">
 <grid orientation="orthogonal" width="1" height="1"/>
 <tile id="0">
  <properties>
   <property name="nav_blocked" type="bool" value="true"/>
  </properties>
  <image source="kenney-sketch-desert/building_dark_sides_windows_E.png" width="256" height="352"/>
  <objectgroup draworder="index" id="2">
   <object id="1" x="14" y="289.5">
    <polygon points="0,0 114,55.5 223.333,-0.166667 223.333,-110.833 111.333,-160.167 4.66667,-112.167"/>
   </object>
  </objectgroup>
 </tile>
 <tile id="1">
  <properties>
   <property name="nav_cost" type="int" value="2"/>
  </properties>
  <image source="kenney-sketch-desert/dirt_center_E.png" width="256" height="352"/>
 </tile>
 <tile id="2">
  <image source="kenney-sketch-desert/grass_center_S.png" width="256" height="352"/>
 </tile>
 <tile id="3">
  <properties>
   <property name="nav_terrain" type="int" value="2"/>
  </properties>
  <image source="kenney-sketch-desert/stairs_full_N.png" width="256" height="352"/>
 </tile>
 <tile id="4">
  <properties>
   <property name="nav_blocked" type="bool" value="true"/>
  </properties>
  <image source="kenney-sketch-desert/trees_N.png" width="256" height="352"/>
  <objectgroup draworder="index" id="2">
   <object id="4" x="46" y="178" width="184" height="126"/>
  </objectgroup>
 </tile>
</tileset>
